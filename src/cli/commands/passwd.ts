/** `paxd passwd USER`: a password verifier for the users of paxd serve. */
import type { Command } from 'commander';
import { usage } from '../../types/index.js';
import type { Io } from '../options.js';

export function define(cmd: Command, { out }: Io): void {
  cmd
    .option('--password-stdin', 'read the password from stdin (the default)')
    .option('--md5', 'print an md5 verifier instead (only for serve --auth md5)')
    .action(async (user: string, o) => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
      if (password === '') throw usage('paxd passwd: empty password on stdin');
      const { md5Verifier, scramVerifier } = await import('../../pgwire/index.js');
      out((o.md5 ? md5Verifier(user, password) : scramVerifier(password)) + '\n');
    });
}
