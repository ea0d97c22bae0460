/** What a lazily loaded page shows while its code arrives. */
export function PageFallback() {
  return (
    <div className="page-fallback" role="status" aria-live="polite">
      Summoning…
    </div>
  );
}
