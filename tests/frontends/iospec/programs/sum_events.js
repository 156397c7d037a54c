// A correct summation program on an event loop (Node's readline): it waits in epoll, not in a
// read of standard input, and only ends when standard input does.
const rl = require('readline').createInterface({ input: process.stdin });
let n = null, got = 0, total = 0;
rl.on('line', (line) => {
  const v = parseInt(line.trim(), 10);
  if (n === null) { n = v; return; }
  total += v; got += 1;
  if (got === n) { console.log(total); }
});
