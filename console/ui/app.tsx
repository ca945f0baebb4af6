/** The console: its navigation and the page the address names. */
import { render } from 'preact';
import { consoleSession } from './api';
import { Show, useLoad } from './load';
import { CalendarPage } from './pages/calendar';
import { CalendarsPage } from './pages/calendars';
import { DeliveriesPage } from './pages/deliveries';
import { MeetingPage } from './pages/meeting';
import { MeetingsPage } from './pages/meetings';
import { OverviewPage } from './pages/overview';
import { SearchPage } from './pages/search';
import { Link, useLocation } from './router';

const SECTIONS = [
  { href: '/', label: 'Overview' },
  { href: '/meetings', label: 'Meetings' },
  { href: '/deliveries', label: 'Deliveries' },
  { href: '/calendars', label: 'Calendars' },
  { href: '/search', label: 'Search' },
];

function Page(props: { url: URL }) {
  const { pathname } = props.url;
  if (pathname === '/') return <OverviewPage />;
  if (pathname === '/meetings') return <MeetingsPage />;
  if (pathname === '/deliveries') return <DeliveriesPage />;
  if (pathname === '/search') return <SearchPage />;
  if (pathname === '/calendars') return <CalendarsPage />;
  const calendar = /^\/calendars\/([^/]+)$/.exec(pathname)?.[1];
  if (calendar !== undefined) return <CalendarPage calendarId={decodeURIComponent(calendar)} />;
  const meeting = /^\/meetings\/([^/]+)$/.exec(pathname)?.[1];
  if (meeting !== undefined) return <MeetingPage botId={decodeURIComponent(meeting)} />;
  return (
    <section>
      <h1>No such page</h1>
      <p>
        <Link href="/">Go to the overview</Link>
      </p>
    </section>
  );
}

function App() {
  const url = useLocation();
  const [session] = useLoad('session', consoleSession);
  const current = (href: string) => (href === '/' ? url.pathname === '/' : url.pathname.startsWith(href));
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <nav aria-label="Sections">
          <span class="brand">meeting-pipeline</span>
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.href}>
                <Link href={section.href} {...(current(section.href) && { 'aria-current': 'page' as const })}>
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
          <Show loaded={session} what="the session">
            {(s) => (
              <span class="target">
                {s.target}
                {s.read_only ? ' · read-only' : ''}
              </span>
            )}
          </Show>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <Page url={url} />
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
