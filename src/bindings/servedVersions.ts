/**
 * The protocol versions an endpoint serves and how a call's version is negotiated (VER rules,
 * B1..B5): one code path for JSON-RPC, HTTP+JSON and gRPC, so that the same A2A-Version gets
 * the same answer — outcome, message and ErrorInfo metadata — on every binding (R20).
 */
import { detectVersion, type VersionSignals } from '../compat/detect.js';
import { V03_VERSION, negotiateVersion } from '../protocol/serviceParams.js';

export class ServedVersions {
  /** The configured versions, plus 0.3 when `compat03` serves it beside them. */
  private readonly withCompat: readonly string[];

  constructor(
    /** The versions configured (`supportedVersions`, default ["1.0"]). */
    readonly configured: readonly string[],
    /** A2A 0.3 clients are served too (issue 9, docs/compat.md). */
    readonly compat03: boolean,
  ) {
    this.withCompat = compat03 && !configured.includes(V03_VERSION) ? [...configured, V03_VERSION] : configured;
  }

  /**
   * The call's version. `compat` comes from an endpoint that can answer 0.3 requests: with
   * `compat03` on, 0.3 is served besides the configured versions, and the request's shape
   * (`structure`) must agree with the version asked for (detectVersion: no version means 0.3,
   * a 1.0 request without A2A-Version is refused). Without `compat`, or with compat03 off,
   * only the configured versions are served and an absent version (0.3) is refused.
   */
  negotiate(signals: VersionSignals, compat: boolean): string {
    if (compat && this.compat03) return detectVersion(signals, { supported: this.withCompat }).version;
    return negotiateVersion(signals.header, signals.query, this.configured);
  }
}
