/** Several `onCall` hooks as one: each hears of every call, whatever the others throw. */
import type { CallHook } from '../server/callObserver.js';

export function combineCallHooks(...hooks: (CallHook | undefined)[]): CallHook | undefined {
  const given = hooks.filter((h): h is CallHook => h !== undefined);
  if (given.length <= 1) return given[0];
  return (call) => {
    let failure: { error: unknown } | undefined;
    for (const hook of given) {
      try {
        hook(call);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  };
}
