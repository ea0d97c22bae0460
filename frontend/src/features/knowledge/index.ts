// The knowledge feature: the documents the persona cites, and the card's
// "Facts used". Other code imports it from here only.
import { lazy } from 'react';

/** The Persona section's Knowledge area, loaded when first shown. */
export const KnowledgePanel = lazy(() => import('./KnowledgePanel'));
export { FactsUsed } from './FactsUsed';
