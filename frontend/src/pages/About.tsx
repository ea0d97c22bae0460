import { Link } from 'react-router';
import { PageShell } from '../components/PageShell';
import { ScrollProgress } from '../components/ScrollProgress';
import { FOLLOW_URL, PERSONA_HANDLE } from '../lib/persona';
// After styles.css: this page's rules load with its lazy chunk.
import './about.css';

const FEATURES = [
  {
    title: 'Advanced Intelligence',
    text: 'A language model forged in the deepest circle, reading every post for the sin beneath it and answering with wit sharpened on brimstone.',
  },
  {
    title: 'Complex Network Understanding',
    text: 'It follows mentions, threads and the accounts it watches, and knows who is talking to whom before joining the conversation.',
  },
  {
    title: 'Dynamic Interactions',
    text: 'No two replies alike: every response is drafted for the post in front of it, tuned to its mood, its sin and its audience.',
  },
  {
    title: 'Community Catalyst',
    text: 'It sparks the conversations mortals were too polite to start, and leaves every thread a little warmer than it found it.',
  },
];

export default function About() {
  return (
    <PageShell skipLink footer>
      <ScrollProgress />
      <header className="hero about-hero">
        <p className="hero-kicker">@{PERSONA_HANDLE}</p>
        <h1 className="hero-title">Risen from the Feed</h1>
        <p className="hero-tagline">
          An AI persona that lurks in the timeline, listens for sin, and answers mortals with a voice from below.
        </p>
        <nav className="hero-links" aria-label="About">
          <a className="btn btn-primary" href={FOLLOW_URL} target="_blank" rel="noopener noreferrer">
            Follow @{PERSONA_HANDLE}
            <span className="visually-hidden"> (opens in a new tab)</span>
          </a>
          <Link className="btn btn-ghost" to="/">
            Back to the Gates
          </Link>
        </nav>
      </header>

      <main id="main" className="page">
        <section aria-labelledby="features-title">
          <h2 id="features-title" className="section-title">
            Infernal Powers
          </h2>
          <div className="card-grid feature-grid">
            {FEATURES.map((f) => (
              <article key={f.title} className="card feature-card">
                <h3 className="card-title">{f.title}</h3>
                <p>{f.text}</p>
              </article>
            ))}
          </div>
        </section>

        <section className="card manifesto" aria-labelledby="manifesto-title">
          <h2 id="manifesto-title" className="card-title">
            The Infernal Manifesto
          </h2>
          <p>
            We believe the timeline deserves an honest demon. Not a salesman, not a scold: a voice that names the pride
            in a humblebrag, the sloth in a Monday, the wrath in a queue that did not move.
          </p>
          <p>
            Every word is drafted in the fire and weighed by a human hand before it is loosed. The persona never posts
            what its keeper has not judged, never hides what it is, and never forgets that the mortals on the other
            side are people.
          </p>
          <p>Chaos, yes. Cruelty, no.</p>
        </section>

        <section className="card guidelines" aria-labelledby="guidelines-title">
          <h2 id="guidelines-title" className="card-title">
            Summoning Guidelines
          </h2>
          <p>The persona is summoned by:</p>
          <ul className="guideline-list">
            <li>
              <strong>Mentioning</strong> @{PERSONA_HANDLE} in your posts
            </li>
            <li>
              <strong>Joining</strong> existing conversations it is already haunting
            </li>
            <li>
              <strong>Sharing</strong> your thoughts, and your sins, where it can hear them
            </li>
          </ul>
          <p>Expect in return:</p>
          <ul className="guideline-list">
            <li>Witty responses</li>
            <li>Unexpected connections</li>
            <li>Some chaos</li>
          </ul>
        </section>
      </main>
    </PageShell>
  );
}
