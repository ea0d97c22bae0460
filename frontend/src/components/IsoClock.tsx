import { useEffect, useState } from 'react';

function isoNow(): string {
  return new Date().toISOString();
}

/** The current time in ISO 8601, ticking every second. */
export function IsoClock() {
  const [now, setNow] = useState(isoNow);
  useEffect(() => {
    const id = window.setInterval(() => setNow(isoNow()), 1000);
    return () => window.clearInterval(id);
  }, []);
  return (
    <time dateTime={now} data-testid="iso-clock">
      {now}
    </time>
  );
}
