// The learning feature: what the persona learned from its editor (lessons,
// past replies and their import). Other features use it only through here.
export { LearningPanel } from './LearningPanel';
