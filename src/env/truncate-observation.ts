/**
 * Cuts an observation to `maxChars` (`env.max_observation_chars`), keeping its head and its tail with a
 * marker between: a file view keeps its start, a test run keeps its summary at the end, and the model is
 * told how much it missed and how to see it. The result never exceeds `maxChars` unless the marker alone
 * does.
 */
export function truncateObservation(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // A marker for the largest possible count is at least as long as the real one, so the result fits.
  const markerRoom = clipMarker(text.length).length;
  const kept = Math.max(0, maxChars - markerRoom);
  let head = Math.ceil(kept / 2);
  let tailStart = text.length - (kept - head);
  // Never split a UTF-16 surrogate pair: the half left over would be an invalid character.
  if (head > 0 && isHighSurrogate(text.charCodeAt(head - 1))) head--;
  if (tailStart < text.length && isLowSurrogate(text.charCodeAt(tailStart))) tailStart++;
  return text.slice(0, head) + clipMarker(tailStart - head) + text.slice(tailStart);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

export function clipMarker(omittedChars: number): string {
  return (
    `\n<response clipped: ${omittedChars} characters omitted; view a smaller range, narrow the search, ` +
    `or filter the output (head, tail, grep)>\n`
  );
}
