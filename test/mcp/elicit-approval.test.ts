import { describe, expect, it } from 'vitest';
import { approvalMessage } from '../../src/mcp/elicit-approval.js';

describe('approvalMessage', () => {
  const request = { command: 'rm -rf build', argv: ['bash', '-c', 'rm -rf build'], cwd: '/w' };

  it('says a dangerous command would also run outside the sandbox when it asks to', () => {
    const message = approvalMessage({ ...request, escalated: true, reason: 'dangerous' });
    expect(message).toContain('can delete or overwrite work');
    expect(message).toContain('outside the sandbox');
  });

  it('does not say so for a dangerous command that stays in the sandbox', () => {
    expect(approvalMessage({ ...request, escalated: false, reason: 'dangerous' })).not.toContain('outside the sandbox');
  });
});
