import { SettingsPanel } from './SettingsPanel';
import { TelegramLink } from './TelegramLink';
import './settings.css';

/** The Settings section: targets, topics, blocklists and caps, and the Telegram link. */
export default function SettingsPage() {
  return (
    <>
      <SettingsPanel />
      <TelegramLink />
    </>
  );
}
