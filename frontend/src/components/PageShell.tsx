import type { ReactNode } from 'react';
import { IsoClock } from './IsoClock';
import { Particles } from './Particles';

interface Props {
  /** Added to page-shell, e.g. 'admin-shell'. */
  className?: string;
  /** A 'Skip to content' link to #main, first in the tab order (the page's <main> then needs id="main"). */
  skipLink?: boolean;
  /** The footer with the current ISO time. */
  footer?: boolean;
  children: ReactNode;
}

/** What the pages share: the frame, the rising embers, and, where the page has them, the skip link and the footer. */
export function PageShell({ className, skipLink = false, footer = false, children }: Props) {
  return (
    <div className={className ? `page-shell ${className}` : 'page-shell'}>
      <Particles count={30} />
      {skipLink && (
        <a className="skip-link" href="#main">
          Skip to content
        </a>
      )}
      {children}
      {footer && (
        <footer className="site-footer">
          <span>Infernal time</span> <IsoClock />
        </footer>
      )}
    </div>
  );
}
