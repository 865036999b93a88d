/** Media type matching for input modes (MSG-06): exact, `type/*` and `*\/*`, parameters ignored. */
import { ContentTypeNotSupportedError } from '../protocol/errors.js';
import type { AgentCard, Message } from '../protocol/types.js';

/** MSG-06: a part whose media type the agent does not accept is refused. */
export function checkInputModes(card: AgentCard, message: Message): void {
  const accepted = card.defaultInputModes;
  for (const part of message.parts) {
    if (part.mediaType && !mediaTypeAccepted(part.mediaType, accepted)) {
      throw new ContentTypeNotSupportedError(`Media type ${part.mediaType} is not accepted; accepted: ${accepted.join(', ')}`, {
        metadata: { mediaType: part.mediaType },
      });
    }
  }
}
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
