/**
 * The `data` payloads of a server-sent event stream, in order (WHATWG HTML §9.2 "event stream
 * interpretation"): lines end in LF, CRLF or CR; a blank line ends an event; the `data` lines of one
 * event join with LF; one space after the colon is dropped; comments (`:` lines) and other fields are
 * skipped. An event cut off without its blank line is dropped, as a browser drops it.
 */
export function parseSseData(stream: string): string[] {
  const events: string[] = [];
  let data: string[] | undefined;
  for (const line of stream.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data !== undefined) events.push(data.join('\n'));
      data = undefined;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') continue;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (data === undefined) data = [];
    data.push(value);
  }
  return events;
}
