// The settings' write; the read is useSettings.
import { put } from '../../api/client';
import type { Settings, SettingsInput } from '../../api/types';

/** Replace the settings; answers them as stored (normalised), or throws an ApiError naming the bad field. */
export function saveSettings(settings: SettingsInput): Promise<Settings> {
  return put<Settings>('/api/settings', settings);
}
