import { describe, expect, it } from 'vitest';
import { escapeLike, isUlid, matchIds, shortId, type IdCandidate, type IdMatch } from '../../src/core/ids.js';

const A = '01JDQ8Z5K3N7V2W4X6Y8Z0ABCD';
const B = '01JDQ8Z5K3N7V2W4X6Y8Z0EFGH';
const C = '01JDQ9AAAAAAAAAAAAAAAAWXYZ';
const UUID_A = '5f8d2c1e-9b4a-4e3f-8c2d-1a2b3c4d5e6f';
const UUID_A_OLD = 'aa11bb22-0000-4000-8000-00000000beef';
const UUID_C = '0c0c0c0c-1111-4222-8333-444455556666';

const CANDS: IdCandidate[] = [
  { id: A, nativeIds: [UUID_A, UUID_A_OLD] },
  { id: B, nativeIds: [] },
  { id: C, nativeIds: [UUID_C, 'ses_Ab12Cd34Ef'] },
];

const matched = (id: string, how?: string): Partial<IdMatch> =>
  (how ? { kind: 'matched', id, how } : { kind: 'matched', id }) as Partial<IdMatch>;

const TABLE: [string, string, Partial<IdMatch>][] = [
  ['full ULID', A, matched(A, 'id')],
  ['full ULID lower case', A.toLowerCase(), matched(A, 'id')],
  ['full ULID with spaces', `  ${B} `, matched(B, 'id')],
  ['unique ULID suffix', 'ABCD', matched(A, 'id-suffix')],
  ['unique ULID suffix lower case', 'efgh', matched(B, 'id-suffix')],
  ['unique ULID prefix', '01JDQ9', matched(C, 'id-prefix')],
  ['shared ULID prefix is ambiguous', '01JDQ8', { kind: 'ambiguous', ids: [A, B] }],
  ['prefix of all three is ambiguous', '01JDQ', { kind: 'ambiguous', ids: [A, B, C] }],
  ['full Claude UUID', UUID_A, matched(A, 'native')],
  ['old Claude UUID (before /clear)', UUID_A_OLD, matched(A, 'native')],
  ['UUID prefix', '5f8d2c', matched(A, 'native-prefix')],
  ['UUID suffix', '5e6f', matched(A, 'native-suffix')],
  ['two natives of one session are one match', 'beef', matched(A)],
  ['opencode id prefix', 'ses_ab12', matched(C, 'native-prefix')],
  ['3 chars is too short', 'ABC', { kind: 'none', reason: 'too-short' }],
  ['empty', '', { kind: 'none', reason: 'too-short' }],
  ['no match', 'QQQQ', { kind: 'none', reason: 'no-match' }],
  ['infix is not a match', 'Z5K3', { kind: 'none', reason: 'no-match' }],
  ['prefix of the displayed id (last 8)', 'aaaaw', matched(C, 'short-prefix')],
  ['4-char prefix of the displayed id', 'AAAA', matched(C, 'short-prefix')],
  ['displayed prefix shared by two is ambiguous', 'Y8Z0', { kind: 'ambiguous', ids: [A, B] }],
];

describe('matchIds', () => {
  it.each(TABLE)('%s', (_name, input, expected) => {
    expect(matchIds(input, CANDS)).toMatchObject(expected);
  });

  it('an exact match wins over partial matches of others', () => {
    const cands: IdCandidate[] = [
      { id: A, nativeIds: ['abcd1234'] },
      { id: B, nativeIds: ['abcd12345678'] },
    ];
    expect(matchIds('abcd1234', cands)).toEqual({ kind: 'matched', id: A, how: 'native' });
    expect(matchIds('abcd12', cands)).toEqual({ kind: 'ambiguous', ids: [A, B] });
  });

  it('a prefix of the displayed id wins over a prefix of the hidden full id', () => {
    const E = '01JDQAAAAAAAAAAAAA01JDQ8ZZ';
    expect(shortId(E)).toBe('01JDQ8ZZ');
    expect(matchIds('01JDQ8', [...CANDS, { id: E, nativeIds: [] }])).toEqual({
      kind: 'matched',
      id: E,
      how: 'short-prefix',
    });
  });

  it('a native id current on two sessions is ambiguous', () => {
    const cands: IdCandidate[] = [
      { id: A, nativeIds: [UUID_A] },
      { id: B, nativeIds: [UUID_A] },
    ];
    expect(matchIds(UUID_A, cands)).toEqual({ kind: 'ambiguous', ids: [A, B] });
  });

  it('repeated candidate rows count once', () => {
    expect(
      matchIds('ABCD', [
        { id: A, nativeIds: [] },
        { id: A, nativeIds: [UUID_A] },
      ]),
    ).toMatchObject(matched(A));
  });
});

describe('helpers', () => {
  it('isUlid', () => {
    expect(isUlid(A)).toBe(true);
    expect(isUlid(A.toLowerCase())).toBe(true);
    expect(isUlid(UUID_A)).toBe(false);
    expect(isUlid(`${A}X`)).toBe(false);
    expect(isUlid('01JDQ8Z5K3N7V2W4X6Y8Z0ABCU')).toBe(false); // U is not Crockford base32
  });
  it('shortId is the last 8 characters', () => {
    expect(shortId(A)).toBe('Y8Z0ABCD');
    expect(shortId('abc')).toBe('abc');
  });
  it('escapeLike', () => {
    expect(escapeLike('a%b_c\\d')).toBe('a\\%b\\_c\\\\d');
  });
});
