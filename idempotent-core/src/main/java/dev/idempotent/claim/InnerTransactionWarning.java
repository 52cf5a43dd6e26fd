package dev.idempotent.claim;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WARN that a transaction began inside a claim's transaction and commits on its own, outside the claim: a
 * {@code @Transactional(propagation = REQUIRES_NEW)} (or {@code NOT_SUPPORTED}) method, or a transaction of another
 * transaction manager, such as a second DataSource's. Spring suspends the claim transaction's synchronizations
 * whenever a transaction manager begins a new transaction while they are active, which is how
 * {@link ClaimSynchronization} notices it. Logged once per scope and place in the code (the first frame of the stack
 * outside Spring, the JDK and this class), on the logger of {@link TransactionalClaimExecutor}. Thread-safe.
 */
final class InnerTransactionWarning {

	/** The most distinct places remembered; past that, nothing more is logged (a bound on memory). */
	static final int MAX_PLACES = 1000;

	private static final Logger logger = LoggerFactory.getLogger(TransactionalClaimExecutor.class);

	private static final StackWalker walker = StackWalker.getInstance();

	private final Set<String> warned = ConcurrentHashMap.newKeySet();

	/**
	 * Warn, unless already warned for this scope and place, that a transaction begins inside a claim's transaction.
	 * Called on the thread that begins the transaction.
	 * @param scope the scope of the claim whose transaction is being suspended, never {@code null}
	 */
	void innerTransactionBegins(String scope) {
		String place = place();
		if (this.warned.size() >= MAX_PLACES || !this.warned.add(scope + " " + place)) {
			return;
		}
		logger.warn("A transaction began inside the claim of scope={}, at {}: what it writes commits on its own, outside "
				+ "the claim's transaction (a @Transactional(propagation = REQUIRES_NEW or NOT_SUPPORTED) method, or a "
				+ "transaction of another transaction manager, such as a second DataSource's). If the claim then rolls "
				+ "back, that work stays committed and runs again when the record is retried; a crash between the two "
				+ "commits repeats it too. Let the work join the claim's transaction (propagation REQUIRED, on the "
				+ "transaction manager of the DataSource that holds the idempotency table), make it idempotent on the "
				+ "record's key itself, or use LEASED mode for work that cannot join. Logged once per scope and place.",
				scope, place);
	}

	/** The first frame of the current stack outside Spring, the JDK, proxies and this package's synchronization. */
	private static String place() {
		Optional<String> frame = walker.walk((frames) -> frames
			.filter((f) -> !isInfrastructure(f.getClassName()))
			.findFirst()
			.map((f) -> withoutProxySuffix(f.getClassName()) + "." + f.getMethodName()));
		return frame.orElse("an unknown place");
	}

	private static boolean isInfrastructure(String className) {
		return className.startsWith("java.") || className.startsWith("jdk.") || className.startsWith("sun.")
				|| className.startsWith("org.springframework.") || className.startsWith("org.aopalliance.")
				|| className.startsWith("com.sun.proxy.") || className.startsWith(InnerTransactionWarning.class.getName())
				|| className.startsWith(ClaimSynchronization.class.getName());
	}

	/** {@code com.acme.Audit$$SpringCGLIB$$0} is {@code com.acme.Audit}, whose method began the transaction. */
	private static String withoutProxySuffix(String className) {
		int proxy = className.indexOf("$$");
		return (proxy > 0) ? className.substring(0, proxy) : className;
	}

}
