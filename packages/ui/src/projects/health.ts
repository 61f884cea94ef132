/** Health as the reference colours it: green from 75%, yellow from 50%, red below. */
export const healthColor = (health: number) => (health >= 75 ? "green" : health >= 50 ? "yellow" : "red");
