import useSWR from 'swr';
import { useNow } from '../../components/useNow';
import { formatTimestamp, relativeTime } from '../../lib/time';

/** The Telegram link as GET /api/telegram answers it. */
interface TelegramState {
  linked: boolean;
  bot: string;
  last_update_at: string | null;
  last_error: string;
  last_error_at: string | null;
}

/** The Telegram review channel: the bot's name, the last update received and the last error. */
export function TelegramLink() {
  const { data, error } = useSWR<TelegramState>('/api/telegram');
  const now = useNow();
  return (
    <section className="settings-group" aria-labelledby="telegram-heading" data-testid="telegram-link">
      <h3 id="telegram-heading">Telegram</h3>
      {error && <p role="alert">Failed to fetch the Telegram link</p>}
      {data && !data.linked && (
        <p className="muted">Not linked: set TELEGRAM_BOT_TOKEN and TELEGRAM_ADMIN_USER_ID for the worker to review drafts from Telegram.</p>
      )}
      {data?.linked && (
        <dl className="settings-telegram">
          <dt>Bot</dt>
          <dd>@{data.bot}</dd>
          <dt>Last update</dt>
          <dd>
            {data.last_update_at ? (
              <time dateTime={data.last_update_at} title={formatTimestamp(data.last_update_at)}>
                {relativeTime(data.last_update_at, now)}
              </time>
            ) : (
              'none yet'
            )}
          </dd>
          <dt>Last error</dt>
          <dd>
            {data.last_error ? (
              <>
                {data.last_error}
                {data.last_error_at && (
                  <>
                    {' '}
                    (<time dateTime={data.last_error_at}>{relativeTime(data.last_error_at, now)}</time>)
                  </>
                )}
              </>
            ) : (
              'none'
            )}
          </dd>
        </dl>
      )}
    </section>
  );
}
