import { useEffect, useState } from 'react';

function currentTime(): number {
  return Date.now();
}

/** The current time in milliseconds, refreshed every `intervalMs`; keeps relative times honest. */
export function useNow(intervalMs = 30_000): number {
  const [now, setNow] = useState(currentTime);
  useEffect(() => {
    const id = window.setInterval(() => setNow(currentTime()), intervalMs);
    return () => window.clearInterval(id);
  }, [intervalMs]);
  return now;
}
