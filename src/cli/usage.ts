/** A bad option or argument: reported with the command's help, exit code 2. */
export class UsageError extends Error {
  override get name(): string {
    return 'UsageError';
  }
}
