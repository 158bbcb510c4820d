/** What an admin credential may do: read only, or read and change. */
export type AdminAccess = 'read' | 'write';
