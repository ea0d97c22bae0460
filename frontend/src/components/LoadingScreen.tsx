import { Particles } from './Particles';

/** The full-screen animation shown while the home page loads. */
export function LoadingScreen() {
  return (
    <div className="loading-screen" role="status" aria-live="polite">
      <Particles count={15} />
      <div className="loading-sigil" aria-hidden="true" />
      <p className="loading-title">BREACHING THE GATES OF HELL</p>
    </div>
  );
}
