// The settings feature: targets, topics, blocklists, caps, the autopilot and
// the Telegram link. Other code imports it from here only.
import { lazy } from 'react';

/** The settings section, loaded when first shown. */
export const SettingsPage = lazy(() => import('./SettingsPage'));
