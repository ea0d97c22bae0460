// The operator's pause of scanning and sending on every platform.
import { send } from '../../api/client';

/** Pause scanning and sending on every platform until resumed (the operator's pause). */
export function pauseOps(): Promise<{ paused: boolean }> {
  return send<{ paused: boolean }>('/api/ops/pause', {});
}

/** Lift the account-wide pause of scanning and sending. */
export function resumeOps(): Promise<{ resumed: boolean }> {
  return send<{ resumed: boolean }>('/api/ops/resume', {});
}
