import { SpendPanel } from './SpendPanel';
import { useSpend } from './useSpend';
import './spend.css';

/** The Spend section: what the persona costs, by endpoint and model, and X's rate-limit windows. */
export default function SpendPage() {
  const spend = useSpend();
  return <SpendPanel spend={spend.data} />;
}
