/**
 * A store shared by several instances (PostgreSQL) behind the default in-process event bus:
 * streams opened on one instance never see what another instance writes, and without leases two
 * instances may run the same task's agent. `a2a serve` wires PostgresEventBus and leases itself;
 * code that builds the handler is warned once per store, through its onError hook.
 */
import type { ErrorHook } from './errorHook.js';
import type { TaskStore } from './stores/taskStore.js';

export const SHARED_STORE_LOCAL_BUS_WARNING =
  'the task store is shared by several instances (PostgreSQL), but the event bus is the default in-process one: ' +
  "streams will not follow other instances' writes. With several instances pass bus: new PostgresEventBus({ … }) " +
  "and leases: {} (docs/storage.md, 'Several instances from code'); with one, pass bus: new LocalEventBus() to say so";

const warned = new WeakSet<TaskStore>();

export function warnLocalBusOnSharedStore(input: { store: TaskStore; busGiven: boolean; onError: ErrorHook }): void {
  const { store } = input;
  if (input.busGiven || store.sharedAcrossInstances !== true || warned.has(store)) return;
  warned.add(store);
  input.onError(new Error(SHARED_STORE_LOCAL_BUS_WARNING));
}
