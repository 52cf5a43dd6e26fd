package dev.idempotent.fastpath.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.awaitility.Awaitility.await;

/**
 * A private {@code redis-server} on a free port, without persistence, for the tests of the fast path: it can be
 * flushed, stopped ({@code SIGSTOP}: unreachable, commands hang), resumed, killed and started again on the same
 * port. Never the shared instance on 6379.
 */
public final class RedisProcess implements AutoCloseable {

	private final int port;

	private final Path directory;

	private Process process;

	private RedisProcess(int port, Path directory) throws IOException {
		this.port = port;
		this.directory = directory;
		this.process = launch();
	}

	/** Start a server on a free port and wait until it answers. */
	public static RedisProcess start() throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		return new RedisProcess(port, Files.createTempDirectory("redis-fast-path"));
	}

	public int port() {
		return this.port;
	}

	/** Send one command (inline protocol) and return the first line of the answer. */
	public String command(String command) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			socket.setSoTimeout(5000);
			OutputStream out = socket.getOutputStream();
			out.write((command + "\r\n").getBytes(StandardCharsets.UTF_8));
			out.flush();
			InputStream in = socket.getInputStream();
			StringBuilder line = new StringBuilder();
			for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
				if (c != '\r') {
					line.append((char) c);
				}
			}
			return line.toString();
		}
	}

	/** How many keys the server holds. */
	public long keys() throws IOException {
		return Long.parseLong(command("DBSIZE").substring(1));
	}

	/** Make the server unreachable: it stops answering, as a host gone from the network would. */
	public void suspend() throws IOException, InterruptedException {
		signal("STOP");
	}

	/** Let a suspended server answer again. */
	public void resume() throws IOException, InterruptedException {
		signal("CONT");
	}

	/** Kill the server (its keys are gone) and start a new one on the same port. */
	public void restart() throws IOException {
		this.process.destroyForcibly();
		try {
			this.process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.process = launch();
	}

	private void signal(String signal) throws IOException, InterruptedException {
		new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).inheritIO().start().waitFor();
	}

	private Process launch() throws IOException {
		Process started = new ProcessBuilder("redis-server", "--port", Integer.toString(this.port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no", "--dir", this.directory.toString())
			.redirectErrorStream(true)
			.redirectOutput(this.directory.resolve("redis.log").toFile())
			.start();
		await("redis-server on port " + this.port).atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.ignoreExceptions()
			.until(() -> "+PONG".equals(command("PING")));
		return started;
	}

	@Override
	public void close() {
		this.process.destroyForcibly();
	}

}
