/** A real 8x8 RGB PNG (a small gradient), base64: what the mock image models return. */
export const MOCK_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAbUlEQVR42g3NQQEAMAgDsUqpFKQgBSmVwvNkIGWLgUjCokSLERErTkjGpkybMTFrzkiFiyq6mCLFFldIjZtqupkmzTbXSIOHGnqYIcMON/8IDhU6TEjYcPnH4qWWXmbJssvtPw4fdfQxR4497ni85GoBf4s30gAAAABJRU5ErkJggg==';
