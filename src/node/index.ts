export { serve } from './serve.js';
export type { ServeOptions, RunningServer } from './serve.js';
