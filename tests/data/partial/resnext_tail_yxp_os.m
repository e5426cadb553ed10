// Three layers in the style of MAESTRO's ResNeXt50 / Resnet50 yxp_os mapping files: the 1x1
// convolutions evaluate; FC1000 (a 7x7 filter over a 7x7 input, one output pixel) is mapped like the
// convolutions, SpatialMap(Sz(R),1) Y and 3-column tiles of X over a cluster of 8, so that no tile
// holds a whole 7-column window: it maps no MAC at all (MAESTRO prints NaNs for it).
Network ResNeXt50_tail {
	Layer CONV5_3_1 {
		Type: CONV
		Stride { X: 1, Y: 1 }
		Dimensions { K: 1024, C: 2048, R: 1, S: 1, Y: 7, X: 7 }
		Dataflow {
			SpatialMap(1,1) K;
			TemporalMap(256,256) C;
			Cluster(256, P);
			TemporalMap(1,1) Y;
			TemporalMap(1,1) X;
			SpatialMap(1,1) C;
			TemporalMap(1,1) R;
			TemporalMap(1,1) S;
		}
	}

	Layer FC1000 {
		Type: CONV
		Stride { X: 1, Y: 1 }
		Dimensions { K: 1000, C: 2048, R: 7, S: 7, Y: 7, X: 7 }
		Dataflow {
			TemporalMap(1,1) K;
			TemporalMap(1,1) C;
			SpatialMap(Sz(R), 1) Y;
			TemporalMap(3,1) X;
			TemporalMap(Sz(R), Sz(R)) R;
			TemporalMap(Sz(R), Sz(R)) S;
			Cluster(8, P);
			SpatialMap(Sz(S), 1) X;
			TemporalMap(Sz(R), Sz(R)) S;
		}
	}

	Layer CONV5_3_3 {
		Type: CONV
		Stride { X: 1, Y: 1 }
		Dimensions { K: 2048, C: 1024, R: 1, S: 1, Y: 7, X: 7 }
		Dataflow {
			SpatialMap(1,1) K;
			TemporalMap(256,256) C;
			Cluster(256, P);
			TemporalMap(1,1) Y;
			TemporalMap(1,1) X;
			SpatialMap(1,1) C;
			TemporalMap(1,1) R;
			TemporalMap(1,1) S;
		}
	}
}
