package dev.idempotent.it.stacks;

/** A stack's data layer, writing one payment row inside the listener (so inside the claim's transaction). */
public interface PaymentWriter {

	void save(String group, String key, String reference);

}
