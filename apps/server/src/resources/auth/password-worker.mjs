// Runs in a worker thread (piscina): bcrypt is CPU-bound for ~90 ms and would stall the event loop.
import bcrypt from 'bcryptjs';

export default function run({ op, password, hash, cost }) {
  return op === 'hash' ? bcrypt.hashSync(password, cost) : bcrypt.compareSync(password, hash);
}
