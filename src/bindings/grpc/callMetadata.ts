/**
 * What a call sends as gRPC metadata (GRPC-02): its service parameters, credentials and caller
 * headers, less those that mean nothing to gRPC. What gRPC cannot carry — a header that is no
 * metadata, a query parameter — is refused before anything is sent, naming it, never saying
 * its value (it may be a credential; grpc-js's own error echoes it).
 */
import { Metadata } from '@grpc/grpc-js';
import { A2AClientError, notSent } from '../../client/errors.js';
import type { TransportCall } from '../../client/transport.js';
import { invalidField } from '../../protocol/errors.js';

/** HTTP-only headers that have no meaning as gRPC metadata (or that gRPC sets itself). */
const NOT_METADATA = new Set(['accept', 'content-type', 'content-length', 'host', 'connection', 'te', 'user-agent', 'transfer-encoding', 'keep-alive']);

/** What gRPC metadata can carry (what grpc-js accepts): names of these characters, values of printable ASCII. */
const METADATA_NAME = /^[0-9a-z_.-]+$/;
const METADATA_VALUE = /^[ -~]*$/;

/**
 * A header gRPC cannot carry (`X-Trace!Id`, a value `José`) as InvalidParamsError naming it,
 * nothing sent; never its value, which may be a credential (grpc-js's own error echoes it).
 */
function checkMetadata(name: string, value: string): void {
  const fault = !METADATA_NAME.test(name)
    ? 'is not a gRPC metadata name (a-z, 0-9, "-", "_", ".")'
    : !METADATA_VALUE.test(value)
      ? 'has a value gRPC metadata cannot carry (printable ASCII only)'
      : undefined;
  if (fault) throw notSent(invalidField(`headers.${name}`, `${fault}: the header cannot be sent over gRPC`));
}

/** Service parameters, credentials and caller headers → metadata (keys arrive lowercased). */
export function metadataOf(headers: Headers): Metadata {
  const metadata = new Metadata();
  headers.forEach((value, name) => {
    if (NOT_METADATA.has(name) || name.startsWith('grpc-') || name.endsWith('-bin')) return;
    checkMetadata(name, value);
    metadata.set(name, value);
  });
  return metadata;
}

/**
 * The call's extra query parameters, which gRPC has no place for: an API key the card puts in
 * the query (`apiKey`), or one an interceptor set, is refused (AUTH, nothing sent) rather than
 * the call going without it. Their names are said, never their values.
 */
export function checkNoQuery(call: TransportCall): void {
  const names = [...new Set(call.query.keys())];
  if (names.length === 0) return;
  throw notSent(
    new A2AClientError('AUTH', `A query parameter cannot be sent over gRPC (${names.join(', ')}): send the credential in a header, or use an HTTP binding`),
  );
}
