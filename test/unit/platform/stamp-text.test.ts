import { describe, expect, it } from 'vitest';
import { fillStampText, listPlaceholders } from '../../../src/platform/stamp-text';

describe('fillStampText', () => {
  it('replaces each placeholder with its value', () => {
    expect(fillStampText('Signed by {{signer_name}} on {{date}}', { signer_name: 'Zoë', date: '2026-11-22' })).toBe(
      'Signed by Zoë on 2026-11-22',
    );
  });

  it('accepts blanks inside the braces', () => {
    expect(fillStampText('[{{ reason }}] [{{\treason}}] [{{reason  }}]', { reason: 'ok' })).toBe('[ok] [ok] [ok]');
  });

  it('fills a repeated placeholder everywhere', () => {
    expect(fillStampText('{{a}}-{{a}}-{{ a }}', { a: 'x' })).toBe('x-x-x');
  });

  it('turns a missing or undefined value into the empty string', () => {
    expect(fillStampText('Location: {{location}}|{{reason}}', { reason: undefined })).toBe('Location: |');
  });

  it('does not expand placeholders that arrive inside values', () => {
    expect(fillStampText('{{signer_name}} / {{reason}}', { signer_name: '{{reason}}', reason: '{{ signer_name }}' })).toBe(
      '{{reason}} / {{ signer_name }}',
    );
  });

  it('inserts $ patterns in values literally', () => {
    expect(fillStampText('{{v}}', { v: "$& $1 $$ $'" })).toBe("$& $1 $$ $'");
  });

  it('never reads inherited properties', () => {
    expect(fillStampText('[{{constructor}}][{{toString}}][{{__proto__}}]', {})).toBe('[][][]');
  });

  it('leaves text that is not a placeholder as written', () => {
    expect(fillStampText('{single} {{ two words }} {{}} {{a}', { single: 'x', a: 'y' })).toBe(
      '{single} {{ two words }} {{}} {{a}',
    );
  });

  it('accepts names in any script, digits, dots and dashes', () => {
    expect(fillStampText('{{имя}} {{n.1}} {{x-y}}', { имя: 'Иван', 'n.1': '1', 'x-y': '2' })).toBe('Иван 1 2');
  });
});

describe('listPlaceholders', () => {
  it('lists distinct names in order of first appearance', () => {
    expect(listPlaceholders('{{ date }} {{signer_name}} {{date}} {{reason}}')).toEqual(['date', 'signer_name', 'reason']);
  });

  it('returns an empty list when there is none', () => {
    expect(listPlaceholders('Signed {single} {{}}')).toEqual([]);
  });
});
