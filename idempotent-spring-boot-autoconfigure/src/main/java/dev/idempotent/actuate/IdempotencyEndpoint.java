package dev.idempotent.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.idempotent.audit.AuditResult;
import dev.idempotent.audit.Audits;
import dev.idempotent.jdbc.ClaimInspector;
import dev.idempotent.jdbc.ClaimRow;
import dev.idempotent.key.KeyMasker;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code idempotency} actuator endpoint. Over HTTP, below {@code /actuator/idempotency}:
 * <ul>
 * <li>{@code GET} : per scope (listener), claims by outcome and the hit ratio, read from the
 * {@code idempotent.claims} counters since the application started, with the sliding-window
 * {@code idempotent.hit.ratio} gauge when it is registered; the declared audits with their latest results.</li>
 * <li>{@code GET /failed?page=0&size=20&scope=orders}: a page of FAILED rows, most recently updated first (page
 * from 0, size 1 to {@value #MAX_PAGE_SIZE}, scope optional).</li>
 * <li>{@code GET /{scope}/{key}}: the row of one key; 404 when it has none.</li>
 * <li>{@code POST} with {@code {"audit": "name"}}: runs that reconciliation audit now and returns its result.</li>
 * </ul>
 * Keys are rendered by the configured {@link KeyMasker} ({@code idempotent.mask-keys}, masked by default),
 * including inside stored error texts and audit samples. Invalid requests (a page out of range, an unknown audit)
 * are rejected with status 400. Thread-safe.
 *
 * @since 0.1.0
 */
@Endpoint(id = "idempotency")
public class IdempotencyEndpoint {

	/** The largest page of FAILED rows the endpoint returns. */
	public static final int MAX_PAGE_SIZE = 100;

	/** The page size when none is given. */
	public static final int DEFAULT_PAGE_SIZE = 20;

	private static final String FAILED = "failed";

	private final ClaimInspector inspector;

	private final KeyMasker masker;

	private final ClaimMeterReader meters;

	private final ObjectProvider<Audits> audits;

	/**
	 * Create the endpoint.
	 * @param inspector the queries over the idempotency table, never {@code null}
	 * @param masker how keys are shown, never {@code null}
	 * @param registry the registry holding the claim meters, or {@code null} if there is none
	 * @param audits the application's audits, if it declares any, never {@code null}
	 */
	public IdempotencyEndpoint(ClaimInspector inspector, KeyMasker masker, @Nullable MeterRegistry registry,
			ObjectProvider<Audits> audits) {
		this.inspector = inspector;
		this.masker = masker;
		this.meters = new ClaimMeterReader(registry);
		this.audits = audits;
	}

	/**
	 * Describe claims per scope and the audits.
	 * @return the summary, never {@code null}
	 */
	@ReadOperation
	public Summary summary() {
		Map<String, @Nullable AuditDescriptor> latest = new TreeMap<>();
		Audits declared = this.audits.getIfAvailable();
		if (declared != null) {
			for (String name : declared.names()) {
				latest.put(name, declared.lastResult(name).map(this::describe).orElse(null));
			}
		}
		return new Summary(this.inspector.getTable().value(), this.inspector.getDialect().id(), this.masker.isMasking(),
				this.meters.read(), latest);
	}

	/**
	 * Read a page of FAILED rows. The optional parameters carry both {@code @Nullable}s: Spring Boot 4 reads
	 * JSpecify's, Spring Boot 3 only Spring's, and answers 400 to a request without a parameter that has neither.
	 * @param view must be {@code failed}
	 * @param page the page number from 0, 0 when {@code null}
	 * @param size the page size, {@value #DEFAULT_PAGE_SIZE} when {@code null}, at most {@value #MAX_PAGE_SIZE}
	 * @param scope only rows of this scope, or {@code null} for all
	 * @return the page, or {@code null} (404) for another view
	 * @throws InvalidEndpointRequestException if the page or size is out of range
	 */
	@ReadOperation
	@SuppressWarnings("deprecation") // Spring's @Nullable: the one that makes a parameter optional on Spring Boot 3
	public @Nullable FailedPage failed(@Selector String view,
			@org.springframework.lang.Nullable @Nullable Integer page,
			@org.springframework.lang.Nullable @Nullable Integer size,
			@org.springframework.lang.Nullable @Nullable String scope) {
		if (!FAILED.equals(view)) {
			return null;
		}
		int pageNumber = (page != null) ? page : 0;
		int pageSize = (size != null) ? size : DEFAULT_PAGE_SIZE;
		if (pageNumber < 0 || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
			throw new InvalidEndpointRequestException("page must be 0 or more and size between 1 and " + MAX_PAGE_SIZE
					+ "; was page=" + pageNumber + " size=" + pageSize, "page or size out of range");
		}
		List<ClaimRow> rows = this.inspector.failed(scope, (long) pageNumber * pageSize, pageSize + 1);
		List<ClaimDescriptor> shown = rows.stream().limit(pageSize).map(this::describe).toList();
		return new FailedPage(pageNumber, pageSize, rows.size() > pageSize, shown);
	}

	/**
	 * Read the row of one key.
	 * @param scope the scope
	 * @param key the key, as the producer sent it (in clear)
	 * @return the row, or {@code null} (404) if the key has no row in that scope
	 */
	@ReadOperation
	public @Nullable ClaimDescriptor claim(@Selector String scope, @Selector String key) {
		return this.inspector.find(scope, key).map(this::describe).orElse(null);
	}

	/**
	 * Run a reconciliation audit now, on the calling thread.
	 * @param audit the audit's name
	 * @return its result, never {@code null}
	 * @throws InvalidEndpointRequestException if the application declares no audit of that name
	 */
	@WriteOperation
	public AuditDescriptor runAudit(String audit) {
		Audits declared = this.audits.getIfAvailable();
		if (declared == null || !declared.names().contains(audit)) {
			String names = (declared != null) ? declared.names().toString() : "none";
			throw new InvalidEndpointRequestException("No reconciliation audit named '" + audit + "'; declared: " + names,
					"unknown audit");
		}
		return describe(declared.run(audit));
	}

	private ClaimDescriptor describe(ClaimRow row) {
		String error = row.lastError();
		if (error != null && this.masker.isMasking()) {
			// an error text can quote the key in any form (escaped, concatenated by the driver): show only its type
			error = errorType(error) + ": (message hidden while idempotent.mask-keys=true; see the table's last_error)";
		}
		return new ClaimDescriptor(row.scope(), this.masker.mask(row.key()), row.status().name(), row.attempts(),
				(row.source() != null) ? row.source().toString() : null, row.createdAt(), row.updatedAt(),
				row.leaseUntil(), error);
	}

	/** The exception type a stored error starts with ({@code com.example.Boom: message}), or "error". */
	private static String errorType(String error) {
		int colon = error.indexOf(':');
		String type = (colon > 0) ? error.substring(0, colon) : "";
		return type.matches("[\\w.$]+") ? type : "error";
	}

	private AuditDescriptor describe(AuditResult result) {
		return new AuditDescriptor(result.name(), result.duplicatedKeys(),
				result.sampleKeys().stream().map(this.masker::mask).toList(), result.ranAt(), result.took());
	}

	/**
	 * What {@link #summary()} returns.
	 *
	 * @param table the idempotency table
	 * @param dialect the database dialect
	 * @param keysMasked whether keys are masked
	 * @param scopes the claim statistics by scope, sorted
	 * @param audits the latest result of each declared audit by name, {@code null} for one that has not run
	 */
	public record Summary(String table, String dialect, boolean keysMasked, Map<String, ScopeStatistics> scopes,
			Map<String, @Nullable AuditDescriptor> audits) {
	}

	/**
	 * Claims of one scope since the application started.
	 *
	 * @param claimed new keys claimed
	 * @param reclaimed FAILED keys claimed again
	 * @param hit idempotent hits (duplicates skipped)
	 * @param rejected deliveries with a bad key
	 * @param hitRatio {@code hit / (claimed + reclaimed + hit)} since start, {@code null} before the first claim
	 * @param recentHitRatio the {@code idempotent.hit.ratio} gauge (a sliding window), {@code null} when it is not
	 * registered
	 */
	public record ScopeStatistics(long claimed, long reclaimed, long hit, long rejected, @Nullable Double hitRatio,
			@Nullable Double recentHitRatio) {
	}

	/**
	 * A page of FAILED rows.
	 *
	 * @param page the page number, from 0
	 * @param size the page size
	 * @param hasMore whether a next page has rows
	 * @param rows the rows, newest first
	 */
	public record FailedPage(int page, int size, boolean hasMore, List<ClaimDescriptor> rows) {
	}

	/**
	 * One row of the idempotency table, with its key masked as configured.
	 *
	 * @param scope the scope
	 * @param key the key, masked as configured
	 * @param status PROCESSING, SUCCEEDED or FAILED
	 * @param attempts claims and failures recorded for the key
	 * @param source the source record as {@code topic-partition@offset}, {@code null} if unknown
	 * @param createdAt when the row was inserted
	 * @param updatedAt when the row was last written
	 * @param leaseUntil the end of a LEASED claim's lease, {@code null} outside LEASED mode
	 * @param lastError the last error of a FAILED row, the key masked in it, {@code null} if none
	 */
	public record ClaimDescriptor(String scope, String key, String status, int attempts, @Nullable String source,
			Instant createdAt, Instant updatedAt, @Nullable Instant leaseUntil, @Nullable String lastError) {
	}

	/**
	 * The result of an audit run.
	 *
	 * @param name the audit
	 * @param duplicatedKeys business keys written more than once
	 * @param sampleKeys some of them, masked as configured
	 * @param ranAt when the run started
	 * @param took how long its query took
	 */
	public record AuditDescriptor(String name, long duplicatedKeys, List<String> sampleKeys, Instant ranAt,
			Duration took) {
	}

}
