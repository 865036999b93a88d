#!/usr/bin/env node
// The `a2a` command. The package ships TypeScript sources; tsx compiles them on load.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
