// The CLI as bin/sandgym.js runs it, printing its own CPU time (user + system) on exit: bench:failfast's runner.
process.on('exit', () => {
  const u = process.cpuUsage();
  process.stderr.write(`\ncpu_us ${u.user + u.system}\n`);
});
process.argv = [process.argv[0]!, 'sandgym', ...process.argv.slice(2)];
await import('../../src/cli/main.ts');
