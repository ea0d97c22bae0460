// The admin area's sections: one guarded route each under ADMIN_PREFIX, in
// the order of the navigation bar. A new section (Insights) is one entry here
// and its page under src/features/<name>/.
import type { ComponentType, LazyExoticComponent } from 'react';
import { ADMIN_PREFIX } from '../../lib/constants';
import { InsightsPage } from '../insights';
import { PersonaPage } from '../persona';
import { ReviewPage } from '../review';
import { SettingsPage } from '../settings';
import { SpendPage } from '../spend';

/** One section of the admin area. */
export interface AdminSection {
  /** The path under ADMIN_PREFIX, e.g. 'spend'. */
  path: string;
  /** The navigation bar's label. */
  label: string;
  /** The section's page, loaded when first shown. */
  Page: LazyExoticComponent<ComponentType>;
}

/** ADMIN_SECTIONS, in the navigation's order; the first is the review, the admin's task. */
export const ADMIN_SECTIONS: readonly AdminSection[] = [
  { path: 'dashboard', label: 'Review', Page: ReviewPage },
  { path: 'spend', label: 'Spend', Page: SpendPage },
  { path: 'persona', label: 'Persona', Page: PersonaPage },
  { path: 'settings', label: 'Settings', Page: SettingsPage },
  { path: 'insights', label: 'Insights', Page: InsightsPage },
];

/** The full path of a section. */
export function sectionPath(section: Pick<AdminSection, 'path'>): string {
  return `${ADMIN_PREFIX}/${section.path}`;
}
