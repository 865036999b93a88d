/** A bad option or argument: reported in one line and "see a2a <command> --help", exit code 2. */
export class UsageError extends Error {
  override get name(): string {
    return 'UsageError';
  }
}
