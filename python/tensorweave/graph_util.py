"""tf.graph_util: GraphDef rewrites, on the messages (TF's semantics)."""
