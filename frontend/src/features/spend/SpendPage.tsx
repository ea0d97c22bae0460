import { PauseControl } from './PauseControl';
import { SpendPanel } from './SpendPanel';
import { useSpend } from './useSpend';
import './spend.css';

/** The Spend section: what the persona costs, by endpoint and model, the rate-limit windows, and the operator's pause. */
export default function SpendPage() {
  const spend = useSpend();
  return (
    <>
      <PauseControl spend={spend.data} />
      <SpendPanel spend={spend.data} />
    </>
  );
}
