/** How a person or service account is called on screen: their name, else username, else email. */
export const personName = (person: {
  name: string | null;
  username: string | null;
  email?: string | null | undefined;
}) => person.name || person.username || person.email || "";
