/** Times in the browser's own zone, with the UTC time on hover. */
export function Time(props: { at: string | null | undefined }) {
  if (props.at === null || props.at === undefined) return <span class="muted">—</span>;
  const date = new Date(props.at);
  if (Number.isNaN(date.getTime())) return <span>{props.at}</span>;
  const local = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  return (
    <time dateTime={date.toISOString()} title={`${date.toISOString().replace('T', ' ').slice(0, 19)} UTC`}>
      {local}
    </time>
  );
}

/** `m:ss` (or `h:mm:ss`) of a position in a recording. */
export function clock(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
