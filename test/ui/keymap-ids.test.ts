import { describe, expect, expectTypeOf, it } from 'vitest';
import { bindingById, KEYMAP, type CommandId } from '../../src/ui/keymap.js';
import { runCommand } from '../../src/ui/input/run-command.js';

describe('keymap command ids', () => {
  it('are a union: an unknown id fails the type check (tsc runs these lines in npm run lint)', () => {
    expectTypeOf<'tree.up'>().toExtend<CommandId>();
    expectTypeOf<'tree.nope'>().not.toExtend<CommandId>();
    // @ts-expect-error 'session.opne' is not a command
    expect(() => bindingById('session.opne')).toThrow(/no binding/);
    // @ts-expect-error runCommand takes command ids only
    const _typo: Parameters<typeof runCommand>[0] = 'view.fillter';
    expect(_typo).toBe('view.fillter');
  });

  it('are unique, and every one has its binding', () => {
    const ids = KEYMAP.map((b) => b.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(bindingById(id).id).toBe(id);
  });
});
