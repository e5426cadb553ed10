Network 17_P2_200 {
Layer L17 {
Type: CONV
Dimensions { K: 768, C: 768, Y: 128, X: 1, R: 1, S: 1 }
Dataflow {
SpatialMap(1,1) C;
TemporalMap(1,1) X';
TemporalMap(73,73) Y';
TemporalMap(1,1) S;
TemporalMap(1,1) R;
TemporalMap(45,45) K;
Cluster(1,P);
TemporalMap(71,71) Y';
TemporalMap(1,1) X';
TemporalMap(1,1) S;
TemporalMap(1,1) R;
TemporalMap(1,1) K;
SpatialMap(1,1) C;
}
}
}
