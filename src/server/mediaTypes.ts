/** Media type matching for input modes (MSG-06): exact, `type/*` and `*\/*`, parameters ignored. */
export function mediaTypeAccepted(mediaType: string, accepted: readonly string[]): boolean {
  const [type = '', subtype = ''] = essence(mediaType).split('/');
  for (const mode of accepted) {
    const [t = '', s = ''] = essence(mode).split('/');
    if ((t === '*' || t === type) && (s === '*' || s === subtype)) return true;
  }
  return false;
}

function essence(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}
