// The approval policies by name, apart from the decisions (policy.ts): the settings name them, and a server checks its
// settings before it answers its first requests without loading the command analysis the decisions need.

/** When to ask the person before running a command (policy.ts says what each one decides). */
export const APPROVAL_POLICIES = ['untrusted', 'on-request', 'on-failure', 'never'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];
