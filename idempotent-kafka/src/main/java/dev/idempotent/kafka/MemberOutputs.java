package dev.idempotent.kafka;

import java.util.ArrayList;
import java.util.List;

import dev.idempotent.capture.Capture;
import dev.idempotent.capture.ClaimOutputs;
import dev.idempotent.capture.LoadedOutputs;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimedWork;
import org.jspecify.annotations.Nullable;

/**
 * The outputs of one group commit member (docs/semantics.md, "Outputs of claims"): what the listener method sends
 * for the member's record is captured and stored in the group's transaction, awaited after the group committed and
 * before the offsets are; for a member that is a hit, what its first processing stored is sent again. A group's
 * transaction may run its work more than once (a transient failure is retried): each run records anew.
 * <p>One instance per member, used on the consumer thread; not thread-safe.
 */
final class MemberOutputs {

	private final @Nullable ClaimOutputs outputs;

	private final boolean captures;

	private final String listener;

	private final List<Capture> captured = new ArrayList<>(1);

	/**
	 * Create the outputs of a member.
	 * @param outputs the starter's outputs, or {@code null} when the application has none
	 * @param captures whether the listener captures its outputs
	 * @param listener names the listener, for messages
	 */
	MemberOutputs(@Nullable ClaimOutputs outputs, boolean captures, String listener) {
		this.outputs = outputs;
		this.captures = captures;
		this.listener = listener;
	}

	/**
	 * Run the member's work while capturing what it sends, and store that in the transaction it runs in.
	 * @param request the member's claim
	 * @param work the listener method's call
	 * @return what the work returned
	 * @throws Throwable what the work threw, or {@link dev.idempotent.capture.OutputRejectedException} when an output
	 * was past the limits
	 */
	@Nullable Object capturing(ClaimRequest request, ClaimedWork<@Nullable Object> work) throws Throwable {
		if (this.outputs == null) {
			return work.run();
		}
		this.captured.clear();
		try (Capture capture = this.outputs.begin(request, this.captures, this.listener)) {
			capture.attempt();
			Object value = work.run();
			capture.store();
			this.captured.add(capture);
			return value;
		}
	}

	/**
	 * After the group committed: wait until the broker acknowledged what the member sent.
	 * @throws dev.idempotent.capture.OutputDeliveryException if an output was not acknowledged in time
	 * @throws dev.idempotent.capture.OutputRejectedException if an output failed for good
	 */
	void awaitSent() {
		for (Capture capture : this.captured) {
			if (capture.recording()) {
				capture.awaitSent();
			}
		}
	}

	/**
	 * For a member that was a hit: send again, and wait for, what its first processing stored.
	 * @param request the member's claim
	 * @throws dev.idempotent.capture.OutputDeliveryException if an output was not acknowledged in time
	 */
	void replay(ClaimRequest request) {
		replay(request, LoadedOutputs.NONE);
	}

	/**
	 * Like {@link #replay(ClaimRequest)}, with the outputs loaded for the group's hits at once.
	 * @param request the member's claim
	 * @param loaded what {@link #load} returned for the group's hits
	 */
	void replay(ClaimRequest request, LoadedOutputs loaded) {
		if (this.outputs != null && this.outputs.captures(this.captures)) {
			this.outputs.replay(request, loaded);
		}
	}

	/**
	 * Load the stored outputs of hits of this member's listener with one statement.
	 * @param requests the hits' claims
	 * @return their outputs, or {@link LoadedOutputs#NONE} when the listener's outputs are not captured
	 */
	LoadedOutputs load(List<ClaimRequest> requests) {
		return (this.outputs != null && this.outputs.captures(this.captures)) ? this.outputs.load(requests)
				: LoadedOutputs.NONE;
	}

}
