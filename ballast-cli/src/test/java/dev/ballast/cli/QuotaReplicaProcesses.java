package dev.ballast.cli;

import dev.ballast.quota.zookeeper.TcpCut;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * A ZooKeeper server and three {@code ballast quota-server} replicas, each a JVM process of its
 * own started from the test's class path, as an operator runs them: ZooKeeper ticks every 500 ms;
 * each replica serves "db" (capacity 1000/s, safe 40/s, lease 5 s, refresh 1 s) with a session
 * timeout of 2 s, and reaches ZooKeeper through a relay the test can hold ({@link TcpCut}), as a
 * firewall that drops its packets would. The replicas' log lines are kept, each with the instant it
 * was read, so that a test waits for what the replicas say (who leads, who no longer does), with a
 * hang guard, and never for a time. Processes are paused with SIGSTOP, resumed with SIGCONT and
 * killed with SIGKILL.
 */
final class QuotaReplicaProcesses implements AutoCloseable {
  static final int REPLICAS = 3;
  static final int TICK_MILLIS = 500;
  static final double CAPACITY = 1000;
  static final double SAFE = 40;
  static final String SESSION = "2s";
  static final long LEASE_NANOS = TimeUnit.SECONDS.toNanos(5);
  static final long SESSION_MILLIS = 2000;
  static final long HANG_NANOS = TimeUnit.MINUTES.toNanos(2);

  /** A line a process printed, read at {@code atNanos}; {@code source} is "zookeeper" or the replica's index. */
  record Line(String source, long atNanos, String text) {}

  private final Path dir;
  private final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
  private final String classPath = System.getProperty("java.class.path");
  private final int zookeeperPort;
  private Process zookeeper;
  private final int[] ports = new int[REPLICAS];
  private final Process[] replicas = new Process[REPLICAS];
  private final TcpCut[] relays = new TcpCut[REPLICAS];
  private final List<Line> lines = new ArrayList<>();
  private final PrintWriter transcript;

  QuotaReplicaProcesses(Path dir) throws Exception {
    this.dir = dir;
    Files.createDirectories(dir);
    transcript = new PrintWriter(Files.newBufferedWriter(dir.resolve("processes.log")), true);
    zookeeperPort = freePort();
    startZooKeeper();
    for (int i = 0; i < REPLICAS; i++) {
      ports[i] = freePort();
      relays[i] = new TcpCut(zookeeperPort);
      startReplica(i);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** Where clients reach replica {@code i}. */
  String address(int i) {
    return "127.0.0.1:" + ports[i];
  }

  int port(int i) {
    return ports[i];
  }

  /** Starts ZooKeeper (again) on its port and data directory, and returns once it takes connections. */
  void startZooKeeper() throws Exception {
    Path data = dir.resolve("zookeeper");
    Files.createDirectories(data);
    zookeeper = new ProcessBuilder(java, "-Xmx128m", "-XX:+UseSerialGC", "-Dzookeeper.admin.enableServer=false",
        "-cp", classPath, "org.apache.zookeeper.server.ZooKeeperServerMain",
        Integer.toString(zookeeperPort), data.toString(), Integer.toString(TICK_MILLIS))
        .redirectErrorStream(true).start();
    read("zookeeper", zookeeper.getInputStream());
    long giveUp = System.nanoTime() + HANG_NANOS;
    while (!answersRuok()) {
      if (!zookeeper.isAlive()) {
        throw new IllegalStateException("ZooKeeper exited with " + zookeeper.exitValue() + ": " + output("zookeeper"));
      }
      if (System.nanoTime() - giveUp > 0) {
        throw new IllegalStateException("ZooKeeper took no connection within two minutes: " + output("zookeeper"));
      }
      TimeUnit.MILLISECONDS.sleep(50); // polls a starting process's port: a hang guard, no timing asserted
    }
  }

  /** Whether ZooKeeper accepts a connection on its port. */
  private boolean answersRuok() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), zookeeperPort), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Starts replica {@code i} (again) on its port, and returns once it serves. */
  void startReplica(int i) throws Exception {
    int before = lines().size();
    replicas[i] = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Djava.util.logging.SimpleFormatter.format=%4$s: %5$s%6$s%n",
        "-cp", classPath, BallastCommand.class.getName(), "quota-server",
        "--port", Integer.toString(ports[i]), "--advertise", address(i), "--zookeeper", relays[i].address(),
        "--replica", i + "/" + REPLICAS, "--resource", "db=" + (int) CAPACITY + ":safe=" + (int) SAFE,
        "--lease", TimeUnit.NANOSECONDS.toSeconds(LEASE_NANOS) + "s", "--refresh", "1s", "--session-timeout", SESSION)
        .redirectErrorStream(true).start();
    read(Integer.toString(i), replicas[i].getInputStream());
    Process process = replicas[i];
    Line serves = awaitLine("replica " + i + " serves", before, line -> line.source().equals(Integer.toString(i))
        && line.text().startsWith("ballast quota server on"), () -> !process.isAlive());
    if (serves == null) {
      throw new IllegalStateException("replica " + i + " exited with " + process.exitValue() + ": " + output(Integer.toString(i)));
    }
  }

  private void read(String source, InputStream output) {
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(output, StandardCharsets.UTF_8))) {
        for (String text = in.readLine(); text != null; text = in.readLine()) {
          Line line = new Line(source, System.nanoTime(), text);
          transcript.println(source + " " + line.atNanos() + " " + text);
          synchronized (this) {
            lines.add(line);
            notifyAll();
          }
        }
      } catch (IOException e) {
        // the process is gone
      }
      synchronized (this) {
        notifyAll();
      }
    }, "output-of-" + source);
    reader.setDaemon(true);
    reader.start();
  }

  synchronized List<Line> lines() {
    return List.copyOf(lines);
  }

  private synchronized String output(String source) {
    StringBuilder text = new StringBuilder();
    lines.stream().filter(l -> l.source().equals(source)).forEach(l -> text.append(l.text()).append('\n'));
    return text.toString();
  }

  /**
   * Waits until a line at or after index {@code from} satisfies {@code match}, and returns it;
   * fails after two minutes (a hang guard), naming {@code what}.
   */
  Line awaitLine(String what, int from, Predicate<Line> match) throws InterruptedException {
    return awaitLine(what, from, match, () -> false);
  }

  /** As {@link #awaitLine(String, int, Predicate)}, but returns null as soon as {@code abandon} holds. */
  synchronized Line awaitLine(String what, int from, Predicate<Line> match, BooleanSupplier abandon) throws InterruptedException {
    long giveUp = System.nanoTime() + HANG_NANOS;
    for (int next = from; ; ) {
      for (; next < lines.size(); next++) {
        if (match.test(lines.get(next))) {
          return lines.get(next);
        }
      }
      if (abandon.getAsBoolean()) {
        return null;
      }
      long left = giveUp - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no line within two minutes for " + what + "; the processes said:\n" + String.join("\n",
            lines.subList(Math.max(0, lines.size() - 40), lines.size()).stream().map(l -> l.source() + " " + l.text()).toList()));
      }
      TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
    }
  }

  /** A replica's line saying that it leads "db" now. */
  static boolean leads(Line line) {
    return line.text().contains(" leads 'db' now");
  }

  /** A replica's line saying that it no longer leads "db". */
  static boolean noLongerLeads(Line line) {
    return line.text().contains(" no longer leads 'db'");
  }

  /** The replica that last said it leads "db" and has not said since that it no longer does; -1 if none. */
  synchronized int leader() {
    int leader = -1;
    for (Line line : lines) {
      if (line.source().equals("zookeeper")) {
        continue;
      }
      int replica = Integer.parseInt(line.source());
      if (leads(line)) {
        leader = replica;
      } else if (noLongerLeads(line) && leader == replica) {
        leader = -1;
      }
    }
    return leader;
  }

  long pid(int i) {
    return replicas[i].pid();
  }

  boolean alive(int i) {
    return replicas[i].isAlive();
  }

  void pause(int i) throws Exception {
    signal("STOP", replicas[i]);
    awaitStopped(replicas[i]);
  }

  void resume(int i) throws Exception {
    signal("CONT", replicas[i]);
  }

  void kill(int i) throws Exception {
    signal("KILL", replicas[i]);
    replicas[i].waitFor(2, TimeUnit.MINUTES);
  }

  void pauseZooKeeper() throws Exception {
    signal("STOP", zookeeper);
    awaitStopped(zookeeper);
  }

  /**
   * Waits until every thread of the process is stopped: SIGSTOP takes effect a moment after kill
   * returns, and a thread still running could answer a request the test means the paused process
   * to find only when it resumes. Linux shows a stopped thread as state T in /proc/PID/task/TID/stat.
   */
  private static void awaitStopped(Process process) throws Exception {
    Path tasks = Path.of("/proc", Long.toString(process.pid()), "task");
    long giveUp = System.nanoTime() + HANG_NANOS;
    while (!allStopped(tasks)) {
      if (System.nanoTime() - giveUp > 0) {
        throw new IllegalStateException("process " + process.pid() + " not stopped within two minutes of SIGSTOP");
      }
      TimeUnit.MILLISECONDS.sleep(1); // polls the kernel's view of a signal's effect: a hang guard, no timing asserted
    }
  }

  private static boolean allStopped(Path tasks) throws IOException {
    try (var threads = Files.list(tasks)) {
      for (Path task : (Iterable<Path>) threads::iterator) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (IOException gone) {
          continue; // the thread ended
        }
        // pid (comm) state ...: the name may hold spaces and parentheses, so read after the last ')'.
        char state = stat.charAt(stat.lastIndexOf(')') + 2);
        if (state != 'T' && state != 't') {
          return false;
        }
      }
    }
    return true;
  }

  void resumeZooKeeper() throws Exception {
    signal("CONT", zookeeper);
  }

  void killZooKeeper() throws Exception {
    signal("KILL", zookeeper);
    zookeeper.waitFor(2, TimeUnit.MINUTES);
  }

  /**
   * Undoes what a test left behind: resumes every process (SIGCONT to a running one does nothing),
   * starts ZooKeeper and the replicas that are not running, releases every link.
   */
  void heal() throws Exception {
    if (!zookeeper.isAlive()) {
      startZooKeeper();
    } else {
      resumeZooKeeper();
    }
    for (int i = 0; i < REPLICAS; i++) {
      relays[i].release();
      if (!replicas[i].isAlive()) {
        startReplica(i);
      } else {
        resume(i);
      }
    }
  }

  /** Replica {@code i}'s link to ZooKeeper. */
  TcpCut zookeeperLink(int i) {
    return relays[i];
  }

  private static void signal(String signal, Process process) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
    if (!kill.waitFor(2, TimeUnit.MINUTES) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
    }
  }

  @Override
  public void close() throws Exception {
    for (int i = 0; i < REPLICAS; i++) {
      if (replicas[i] != null) {
        replicas[i].destroyForcibly();
        replicas[i].waitFor(1, TimeUnit.MINUTES);
      }
      if (relays[i] != null) {
        relays[i].close();
      }
    }
    if (zookeeper != null) {
      zookeeper.destroyForcibly();
      zookeeper.waitFor(1, TimeUnit.MINUTES);
    }
    transcript.close();
  }
}
