package dev.idempotent.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on a free local port in front of a database, which a test cuts and restores: an outage of the
 * database as the application sees it, without stopping the database that other tests share. {@link #cut()} closes
 * every relayed connection and refuses new ones (accepted, then closed at once) until {@link #restore()}.
 */
final class TcpRelay implements AutoCloseable {

	private final String targetHost;

	private final int targetPort;

	private final ServerSocket server;

	private final Set<Socket> open = ConcurrentHashMap.newKeySet();

	private final AtomicInteger refused = new AtomicInteger();

	private volatile boolean down;

	private TcpRelay(String targetHost, int targetPort) throws IOException {
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "tcp-relay-" + this.server.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Start a relay to the host and port of a JDBC URL such as {@code jdbc:mysql://127.0.0.1:3306/test}.
	 * @return the relay, accepting connections
	 */
	static TcpRelay to(String jdbcUrl) throws IOException {
		URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
		return new TcpRelay(uri.getHost(), uri.getPort());
	}

	/** The JDBC URL through this relay: the given one with its host and port replaced. */
	String relayed(String jdbcUrl) {
		URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
		return jdbcUrl.replace("//" + uri.getHost() + ":" + uri.getPort(), "//127.0.0.1:" + this.server.getLocalPort());
	}

	/** Close every relayed connection and refuse new ones. */
	void cut() {
		this.down = true;
		this.open.forEach(TcpRelay::closeQuietly);
		this.open.clear();
	}

	/** Relay new connections again. */
	void restore() {
		this.down = false;
	}

	/** How many connections were refused while cut. */
	int refused() {
		return this.refused.get();
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				if (this.down) {
					this.refused.incrementAndGet();
					closeQuietly(client);
					continue;
				}
				Socket target = new Socket();
				target.connect(new InetSocketAddress(this.targetHost, this.targetPort), 5_000);
				this.open.add(client);
				this.open.add(target);
				pump(client, target);
				pump(target, client);
			}
			catch (IOException ex) {
				// the server socket closed, or the target refused: the client sees its connection fail
			}
		}
	}

	private void pump(Socket from, Socket to) {
		Thread pump = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				for (int n; (n = in.read(buffer)) >= 0;) {
					out.write(buffer, 0, n);
					out.flush();
				}
			}
			catch (IOException ex) {
				// cut or closed by either side
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
				this.open.remove(from);
				this.open.remove(to);
			}
		}, "tcp-relay-pump");
		pump.setDaemon(true);
		pump.start();
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

	@Override
	public void close() throws IOException {
		this.server.close();
		cut();
	}

}
