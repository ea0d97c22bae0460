import { SettingsPanel } from './SettingsPanel';
import './settings.css';

/** The Settings section: targets, topics, blocklists and caps. */
export default function SettingsPage() {
  return <SettingsPanel />;
}
