import { AutopilotPanel } from './AutopilotPanel';
import { SettingsPanel } from './SettingsPanel';
import { TelegramLink } from './TelegramLink';
import './settings.css';

/** The Settings section: targets, topics, blocklists and caps, the autopilot's rules, and the Telegram link. */
export default function SettingsPage() {
  return (
    <>
      <SettingsPanel />
      <AutopilotPanel />
      <TelegramLink />
    </>
  );
}
