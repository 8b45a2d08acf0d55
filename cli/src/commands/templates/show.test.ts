import { describe, expect, it } from 'vitest';
import { UsageError } from '../../runtime.js';
import { parseTriggerValues, readTemplateFile } from './show.js';

describe('sched trigger values', () => {
  it('reads key=value as text and key:=json as JSON', () => {
    expect(parseTriggerValues(['order_id=A-17', 'qty:=3', 'urgent:=true', 'note=a=b', 'empty='])).toEqual({
      order_id: 'A-17',
      qty: 3,
      urgent: true,
      note: 'a=b',
      empty: '',
    });
  });

  it('refuses what is neither, and := without JSON', () => {
    expect(() => parseTriggerValues(['order_id'])).toThrow(UsageError);
    expect(() => parseTriggerValues(['bad-name=1'])).toThrow(UsageError);
    expect(() => parseTriggerValues(['qty:=three'])).toThrow(/JSON/);
  });
});

describe('sched templates --file', () => {
  it('reads a JSON object, and refuses unreadable files, non-JSON and non-objects as usage errors', () => {
    expect(readTemplateFile('t.json', () => '{"name":"x"}')).toEqual({ name: 'x' });
    expect(() =>
      readTemplateFile('t.json', () => {
        throw new Error('ENOENT');
      }),
    ).toThrow(/cannot read t.json/);
    expect(() => readTemplateFile('t.json', () => 'name: x')).toThrow(/not JSON/);
    expect(() => readTemplateFile('t.json', () => '[1]')).toThrow(/JSON object/);
  });
});
