import { useEffect, useState } from 'react';

function scrolledPercent(): number {
  const el = document.documentElement;
  const max = el.scrollHeight - el.clientHeight;
  if (max <= 0) return 0;
  return Math.min(100, Math.max(0, window.scrollY / max) * 100);
}

/** A thin bar at the top of the viewport that fills as the page is scrolled. */
export function ScrollProgress() {
  const [percent, setPercent] = useState(0);
  useEffect(() => {
    let frame = 0;
    const update = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setPercent(scrolledPercent()));
    };
    update();
    window.addEventListener('scroll', update, { passive: true });
    window.addEventListener('resize', update);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', update);
      window.removeEventListener('resize', update);
    };
  }, []);
  return (
    <div
      className="scroll-progress"
      role="progressbar"
      aria-label="Reading progress"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(percent)}
    >
      <div className="scroll-progress-fill" style={{ transform: `scaleX(${percent / 100})` }} />
    </div>
  );
}
