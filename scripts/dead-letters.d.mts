/** `npm run dead-letters [-- --redrive [id…]]` on the local queue's file; returns the exit code and what it prints. */
export function runDeadLetters(args: string[], path?: string): { code: number; text: string };
