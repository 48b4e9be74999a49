/** Whether an MQTT topic filter (`+` one level, `#` the rest) matches a topic name. */
export function matchesFilter(filter: string, topic: string): boolean {
  const wanted = filter.split('/');
  const levels = topic.split('/');
  for (let i = 0; i < wanted.length; i++) {
    if (wanted[i] === '#') return true;
    if (i >= levels.length || (wanted[i] !== '+' && wanted[i] !== levels[i])) return false;
  }
  return wanted.length === levels.length;
}

/** Wildcards belong in filters; a PUBLISH naming one is a protocol error. */
export function isValidTopicName(topic: string): boolean {
  return topic.length > 0 && !topic.includes('+') && !topic.includes('#');
}
