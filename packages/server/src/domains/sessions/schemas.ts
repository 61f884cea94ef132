import { Type } from "typebox";

// No length rules here: a login never says which part of it is wrong.
export const Login = Type.Object({
  username: Type.String({ maxLength: 1000 }),
  password: Type.String({ maxLength: 1000 }),
});
